"""OpenHands conversations as the agent SDK saves them: the calls its state file counted,
and the conversation its event files hold.

OpenHands 1.x (its agent SDK, its CLI and its server) keeps a conversation
in a folder of its own, `~/.openhands/conversations/<id>/`:

- `base_state.json`, the conversation's state: its `id`, its `agent` (the
  model it runs, `agent.llm`, named by its `usage_id`) and `stats.usage_to_metrics`,
  one entry per model the conversation used (`"agent"`, a `"condenser"`
  that summarises, ...), each with `token_usages`, a record per API call
  (`prompt_tokens`, which holds the cached and written tokens,
  `completion_tokens`, `cache_read_tokens`, `cache_write_tokens`,
  `response_id`), its `costs` and its `accumulated_cost`;
- `events/event-<index>-<id>.json`, an event a file: the system prompt, the
  user's and the agent's messages, each tool call the agent made
  (`ActionEvent`, with the `llm_response_id` of the response that made it)
  and each result (`ObservationEvent`).

Each usage record is one call. An agent run through ACP counts its reads
apart from `prompt_tokens`, as the SDK's own hit rate allows
([`metrics.py`](https://github.com/OpenHands/software-agent-sdk/blob/main/openhands-sdk/openhands/sdk/llm/utils/metrics.py),
`cache_hit_rate`): a record whose reads pass its prompt is read that way.
A call's time is that of the event its response made (the events' times
are written without a zone, and read as UTC as every such time is); where
no event names the response, the time of its
cost when the costs pair one to one with the records; else none. The
agent's own model is the main thread, `<conversation>/main`; each other
model (the condenser) a thread of its own, `<conversation>/agent-<usage id>`.
The conversation is the events as OpenAI messages (`openai_chat`): a system
prompt, messages, tool calls grouped by the response that made them, and
their results; other events are skipped and counted. The cost the state
recorded itself is the sum of the `accumulated_cost`s.

The events are read from the `events` folder beside the state file, or where
there is none, from the event files beside it; a state file alone (copied out
of its folder) still gives its calls. An event file that is no JSON object is
named as a bill names a bad line (the last one, which a live conversation may
be writing, as a half-written line, left out of the conversation); before the
last, it is the conversation's error, a message of it perhaps lost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from context_budget.layers import Layers
from context_budget.models import model_for
from context_budget.sessions.openai_chat import read_openai
from context_budget.sessions.session import Call, Session, ThreadId
from context_budget.sessions.skips import Skip
from context_budget.sessions.text import dollars, epoch, kind_of, loads_json, object_at, tally
from context_budget.usage import Usage

__all__ = [
    "STATE_FILE",
    "conversation_state",
    "event_files",
    "events_folder_error",
    "is_event",
    "is_event_name",
    "is_state",
    "read",
]

#: The name of a conversation's state file; its events are in `events/` beside it.
STATE_FILE = "base_state.json"
#: What an event file's name starts and ends with.
_EVENT_NAME = ("event-", ".json")


def is_state(data: object) -> bool:
    """True for an OpenHands conversation's state: its agent and its usage by model."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("agent"), dict)
        and isinstance(object_at(data, "stats").get("usage_to_metrics"), dict)
    )


def is_event(data: object) -> bool:
    """True for one event of a conversation (an event file's object): its id, time, source
    and kind."""
    return isinstance(data, dict) and all(
        isinstance(data.get(key), str) for key in ("id", "timestamp", "source", "kind")
    )


def event_files(state: Path) -> list[Path]:
    """The event files of the conversation whose state file is `state`, in their order
    (by the index in their names): those of the `events` folder beside it, or where there
    is none, those beside it (as a page's file picker leaves them); none when neither."""
    folder = state.parent / "events"
    if not folder.is_dir():
        folder = state.parent
    try:
        names = [name for name in (entry.name for entry in folder.iterdir()) if is_event_name(name)]
    except OSError:
        return []
    return [folder / name for name in sorted(names, key=_index)]


def conversation_state(folder: Path) -> Path | None:
    """The state file of the conversation whose folder is `folder`, read in the folder's
    place (it reads the events); None for any other folder.

    Raises:
        ValueError: `folder` is a conversation's `events` folder (`events_folder_error`).
    """
    if (state := folder / STATE_FILE).is_file():
        return state
    if (said := events_folder_error(folder)) is not None:
        raise ValueError(said)
    return None


def events_folder_error(folder: Path) -> str | None:
    """What to say of a folder given to be read that is a conversation's `events` folder
    (its state file beside it reads them, never the folder alone); None for any other."""
    if folder.name != "events" or not (folder.parent / STATE_FILE).is_file():
        return None
    return (
        f"{folder}: an OpenHands conversation's events folder: give {folder.parent}, "
        f"the conversation's folder, whose {STATE_FILE} reads them"
    )


def is_event_name(name: str) -> bool:
    """True for the name of an event file: `event-<index>-<id>.json`."""
    return name.startswith(_EVENT_NAME[0]) and name.endswith(_EVENT_NAME[1])


def _index(name: str) -> tuple[int, str]:
    """An event file's index (the number after `event-`), then its name."""
    number = name[len(_EVENT_NAME[0]) :].partition("-")[0]
    return (int(number), name) if number.isdigit() else (-1, name)


def _events(state: Path) -> tuple[list[dict[str, Any]], list[Skip]]:
    """(the events of a state file's conversation that read as objects, a skip for each
    file that did not: a "half-written line" for the last, which a live conversation may
    be writing, a "bad line" for any other, its reason `<file>: not an event: <why>`)."""
    events, broken = [], []
    files = event_files(state)
    for path in files:
        try:
            event = loads_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            why = str(error)
        else:
            if isinstance(event, dict):
                events.append(event)
                continue
            why = f"expected an event object, found {kind_of(event)}"
        kind = "half-written line" if path == files[-1] else "bad line"
        broken.append(Skip(kind, str(path), None, f"{path}: not an event: {why}"))
    return events, broken


def _usage_words(entry: dict[str, Any], model: str) -> dict[str, Any]:
    """A usage record in the words `Usage.of` reads: LiteLLM's, the cached and written tokens
    inside `prompt_tokens` (the writes as Anthropic's on its models, as OpenAI's otherwise);
    or, where the reads pass `prompt_tokens` and so cannot be inside it (an agent run through
    ACP counts them apart), Anthropic's, each figure on its own."""
    prompt, read = entry.get("prompt_tokens", 0), entry.get("cache_read_tokens", 0)
    output, written = entry.get("completion_tokens", 0), entry.get("cache_write_tokens", 0)
    if _whole(prompt) and _whole(read) and read > prompt:
        return {
            "input_tokens": prompt,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
            "output_tokens": output,
        }
    details = {"cached_tokens": read}
    words = {"prompt_tokens": prompt, "completion_tokens": output, "prompt_tokens_details": details}
    found = model_for(model) if written else None
    if found is not None and found.provider == "anthropic":
        words["cache_creation_input_tokens"] = written
    elif written:
        details["cache_write_tokens"] = written
    return words


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _times(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Response id -> the time of the first event it made."""
    found: dict[str, Any] = {}
    for event in events:
        ident = event.get("llm_response_id")
        if isinstance(ident, str) and ident:
            found.setdefault(ident, event.get("timestamp"))
    return found


def _calls(
    state: dict[str, Any], conversation: str, times: dict[str, Any]
) -> tuple[list[Call], float | None]:
    """(a call per usage record, the cost the state recorded) of a conversation's state.

    Raises:
        ValueError: a usage record, time or cost that is not sound, naming it.
    """
    main = object_at(object_at(state, "agent"), "llm").get("usage_id", "agent")
    calls: list[Call] = []
    spent: list[float] = []
    for usage_id, metrics in state["stats"]["usage_to_metrics"].items():
        where = f"stats.usage_to_metrics.{usage_id}"
        if not isinstance(metrics, dict):
            raise ValueError(f"{where}: expected an object, found {kind_of(metrics)}")
        thread = (
            ThreadId(conversation)
            if usage_id == main
            else ThreadId(conversation, "agent", agent=str(usage_id), agent_type=str(usage_id))
        )
        records = metrics.get("token_usages") or []
        costs = metrics.get("costs") or []
        if not isinstance(records, list) or not isinstance(costs, list):
            raise ValueError(f"{where}: token_usages and costs must be lists")
        paired = len(costs) == len(records)
        for number, entry in enumerate(records):
            at = f"{where}.token_usages[{number}]"
            if not isinstance(entry, dict):
                raise ValueError(f"{at}: expected an object, found {kind_of(entry)}")
            model = str(entry.get("model") or metrics.get("model_name") or "unknown")
            when = times.get(entry.get("response_id") or "")
            if when is None and paired and isinstance(costs[number], dict):
                when = costs[number].get("timestamp")
            usage = Usage.of(_usage_words(entry, model), where=at, strict=False)
            calls.append(Call(thread, epoch(when, f"{at} time"), model, usage))
        kept = dollars(metrics.get("accumulated_cost"), f"{where}.accumulated_cost")
        if kept is not None:
            spent.append(kept)
    return calls, (sum(spent) if spent else None)


def _tool_calls(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls of the action events one response made, in OpenAI's words."""
    found = []
    for action in actions:
        call = object_at(action, "tool_call")
        arguments = call.get("arguments", "{}")
        name = action.get("tool_name", call.get("name"))
        ident = action.get("tool_call_id", call.get("id"))
        found.append({"id": ident, "function": {"name": name, "arguments": arguments}})
    return found


def _thought(actions: list[dict[str, Any]]) -> list[Any]:
    """The text parts of what the agent said with its tool calls (`thought`, `reasoning`)."""
    parts: list[Any] = []
    for action in actions:
        thought = action.get("thought")
        parts += thought if isinstance(thought, list) else []
    return parts


def _messages(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """(the events as OpenAI messages, the kinds of the events skipped and their counts)."""
    messages: list[dict[str, Any]] = []
    skipped: dict[str, int] = {}
    actions: list[dict[str, Any]] = []  # the action events of one response, not yet written

    def flush() -> None:
        if actions:
            messages.append(
                {
                    "role": "assistant",
                    "content": _thought(actions),
                    "tool_calls": _tool_calls(actions),
                }
            )
            actions.clear()

    for event in events:
        kind = event.get("kind")
        if kind == "ActionEvent" and isinstance(event.get("tool_call_id"), str):
            same = actions and actions[0].get("llm_response_id") == event.get("llm_response_id")
            if not same:
                flush()
            actions.append(event)
            continue
        flush()
        message = _message(event)
        if message is None:
            label = str(kind) if isinstance(kind, str) else "(none)"
            skipped[label] = skipped.get(label, 0) + 1
        else:
            messages.append(message)
    flush()
    return messages, skipped


def _message(event: dict[str, Any]) -> dict[str, Any] | None:
    """The OpenAI message an event that is no tool call gives, or None."""
    kind = event.get("kind")
    if kind == "SystemPromptEvent":
        return {"role": "system", "content": [object_at(event, "system_prompt")]}
    if kind == "MessageEvent":
        message = object_at(event, "llm_message")
        role = message.get("role")
        return {"role": role, "content": message.get("content")} if role else None
    ident = event.get("tool_call_id")
    if not isinstance(ident, str):
        return None
    if kind == "ObservationEvent":
        content = object_at(event, "observation").get("content")
    elif kind == "AgentErrorEvent":
        content = event.get("error")
    elif kind == "UserRejectObservation":
        content = event.get("rejection_reason")
    else:
        return None
    return {"role": "tool", "tool_call_id": ident, "content": content}


def read(data: object, name: str = "") -> Session:
    """A conversation's state (`base_state.json`, loaded) as a `Session`, with the events of
    the `events` folder beside the file `name`.

    Raises:
        ValueError: no conversation state.
    """
    if not is_state(data):
        raise ValueError(
            f"expected an OpenHands conversation state (its agent and stats), found {kind_of(data)}"
        )
    assert isinstance(data, dict)
    events, broken = _events(Path(name)) if name else ([], [])
    conversation = str(data.get("id") or Path(name).parent.name or "conversation")
    conversation = conversation.replace("-", "")
    problem: Exception | None = None
    usage_problem: Exception | None = None
    calls: list[Call] = []
    recorded = None
    try:
        calls, recorded = _calls(data, conversation, _times(events))
    except ValueError as error:
        usage_problem = error
    messages, skipped = _messages(events)
    layers = Layers("", [], [])
    try:
        layers = read_openai(messages)
    except (TypeError, ValueError) as error:
        problem = type(error)(f"events (openhands): {error}")
    inside = [skip for skip in broken if skip.kind == "bad line"]  # a message may be lost
    if inside:
        problem = ValueError(inside[0].reason)
    if problem is None and not layers.conversation:
        what = f"{len(events)} events ({tally(skipped)})" if events else "no events folder"
        problem = ValueError(f"an OpenHands conversation with no message: {what}")
    if broken:
        skipped["(not an event)"] = len(broken)
    return Session(
        "openhands",
        layers,
        main=ThreadId(conversation),
        calls=tuple(calls),
        usage_records=tuple(calls),
        skipped=sum(skipped.values()),
        files=(name,) if name else (),
        recorded_cost=recorded,
        conversation_error=problem,
        usage_error=usage_problem,
        bad_lines=tuple(broken),
    )
