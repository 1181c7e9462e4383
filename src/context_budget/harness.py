"""The harness loop, with a counter that triggers compaction and notes that survive it.

`run_agent` is the stop-reason loop: call the model, run the tools it asks
for, send the results back, until it stops asking. Three lines make it manage
its own context, and each sits in one exact place:

1. **The check** comes after this round's tool results are appended and
   before the next request, so it sees the results just produced and never
   sends an over-threshold history one extra time.
2. **Wholesale replacement**: on compaction `messages` becomes the history
   the compaction step's `restart` returns (by default the single restart
   message `compact_history` builds); nothing of the old list is kept.
3. **The reset**: the counter goes back to 0, because it counts the new
   window, not the whole run.

Two hooks make it the loop of every run in the package:

- a **plan** (`plan=`) sees each request just before it is sent, on copies
  of the messages and tools, and returns what to send: where to put cache
  breakpoints, what the server should clear. Neither the loop's own history
  nor the caller's tools are ever edited by it.
- a **compaction** step (`compaction=`) says how to summarize and what the
  new history is: `TranscriptCompaction` (the default) sends the transcript
  in a request of its own; `AppendOnlyCompaction` sends the request the loop
  would have sent with a question appended, so the cached prefix is read,
  not rebuilt. Either way the summary replaces the whole history.

`run_agent` is `AgentLoop(AgentConfig(...), task).run()`: its settings in one
checked `AgentConfig`, and the loop as named steps of `AgentLoop` (build the
request, check its prefix, send it, record its usage, run the tools, decide
and compact), each short enough to read on its own.

The client is anything with `messages.create(**request)`: `ScriptedClient`
offline, or `anthropic.Anthropic()` unchanged. A request that carries
`betas` (a plan adds them with `context_management`) goes through
`client.beta.messages.create`, as the Anthropic SDK requires.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Concatenate, Literal, ParamSpec, Protocol

from context_budget._blocks import checked_message_text
from context_budget._checks import RESULT_CONTENT, bad_scalar, check_message, check_messages
from context_budget._copies import History, WatchedCopies
from context_budget._values import short_repr
from context_budget.calls import ModelCall
from context_budget.clients import (
    ModelClient,
    content_blocks,
    response_field,
    response_text,
    send_request,
)
from context_budget.errors import CompactionStormError, MalformedResponseError
from context_budget.messages import Message
from context_budget.notes import NotesFile
from context_budget.prefix_guard import PrefixGuard
from context_budget.usage import Usage, should_compact, track_usage, window_usage

__all__ = [
    "COMPACT_INSTRUCTION",
    "DEFAULT_MODEL",
    "HANDOFF_PREFIX",
    "MAX_PAUSES",
    "NOTES_PREFIX",
    "AgentConfig",
    "AgentLoop",
    "AgentRun",
    "AppendOnlyCompaction",
    "Compaction",
    "ModelCall",
    "RequestPlan",
    "TranscriptCompaction",
    "append_tool_results",
    "compact_history",
    "run_agent",
]

#: The model the examples name; pass your own to `run_agent`.
DEFAULT_MODEL = "claude-sonnet-5"

#: The instruction of the summarizing call.
COMPACT_INSTRUCTION = (
    "Write a handoff summary of the work below for a fresh context window that "
    "will carry on without it. Keep every architectural decision, every bug "
    "that is still unresolved and the implementation details the next steps "
    "depend on. Leave out tool output that repeats what is already known."
)

#: What opens the restart message, before the summary.
HANDOFF_PREFIX = "Handoff summary of the work so far; carry on from here:"

#: What comes between the summary and the notes in the restart message.
NOTES_PREFIX = "Current NOTES.md:"

#: The failed compactions in a row after which `run_agent` stops.
MAX_FAILED_COMPACTIONS = 3

#: The `pause_turn` responses in a row that `run_agent` resumes; one more ends the run.
MAX_PAUSES = 10

Measure = Literal["accumulated", "window", "prompt"]
ToolImpl = Callable[[dict[str, Any]], Any]
#: A request plan: the request about to be sent (a copy) -> the request to send.
RequestPlan = Callable[[dict[str, Any]], dict[str, Any]]
_Settings = ParamSpec("_Settings")  # AgentConfig's arguments, as run_agent takes them


@dataclass(frozen=True)
class AgentRun:
    """What `run_agent` did.

    Attributes:
        text: the final reply's text (empty when the run stopped without one).
        stop_reason: the last response's stop reason: `"end_turn"`, or the
            reason that ended the run early (`"max_tokens"`, `"refusal"`, ...).
        calls: every model call, in order.
        compactions: the numbers of the compaction calls, counting from 1.
        messages: the history at the end, the final reply included.
        threshold: `context_window * compact_ratio`, in tokens.
        measure: the counter's measure, `"accumulated"`, `"window"` or `"prompt"`.
    """

    text: str
    stop_reason: str | None
    calls: tuple[ModelCall, ...]
    compactions: tuple[int, ...]
    messages: tuple[Message, ...]
    threshold: float
    measure: Measure

    def log(self) -> str:
        """The run, one line per call, then the reply and a count.

        Examples:
            >>> run = AgentRun("done", "end_turn", (ModelCall(1, "turn", "end_turn",
            ...     Usage(input_tokens=90, output_tokens=10), 100),), (), (), 700.0, "accumulated")
            >>> print(run.log())
            call  1  end_turn    counter    100
            reply: done
            1 call, 0 compactions
        """
        lines = []
        seen = 0
        for call in self.calls:
            if call.kind == "compaction":
                seen += 1
                reset = f"#{seen}, counter reset to {call.tokens_used}"
                lines.append(f"call {call.number:>2}  compaction  {reset}")
                continue
            stop = _shown(call.stop_reason)
            line = f"call {call.number:>2}  {stop:<10}  counter {call.tokens_used:>6,}"
            if call.tokens_used >= self.threshold:
                line += f"  >= {self.threshold:,g}"
            lines.append(line)
        lines.append(f"reply: {self.text}" if self.text else f"stopped: {self.stop_reason}")
        calls = len(self.calls)
        where = f" (call {', '.join(map(str, self.compactions))})" if self.compactions else ""
        lines.append(
            f"{calls} call{'' if calls == 1 else 's'}, {len(self.compactions)} "
            f"compaction{'' if len(self.compactions) == 1 else 's'}{where}"
        )
        return "\n".join(lines)


def _transcript(messages: Sequence[Message]) -> str:
    """The history as text for a summarizing model: each message's text, an embedded
    file (an image's base64 data) named rather than spelled out."""
    check_messages(messages)
    return "\n\n".join(f"[{m['role']}] {checked_message_text(m, files=False)}" for m in messages)


def _shown(stop_reason: object) -> str:
    """A stop reason as the log prints it: `?` when absent, a repr when not a string."""
    if stop_reason is None:
        return "?"
    return stop_reason if isinstance(stop_reason, str) else short_repr(stop_reason)


def _reply_blocks(response: Any, call: int | None) -> list[dict[str, Any]]:
    """The response's content, checked, as blocks that can be sent back.

    Every block must carry a string `type`. Empty text blocks are dropped (the
    API refuses them in a request). Every `tool_use` block must carry a
    non-empty string `id` and `name` and an object `input`, and no two may
    share an id.

    Raises:
        MalformedResponseError: the content is not a list of blocks, or a
            block breaks the rules above; the error names the block.
    """
    try:
        blocks = content_blocks(response)
    except TypeError as error:
        raise MalformedResponseError("content", f"is unreadable: {error}", call=call) from None
    kept: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    for index, block in enumerate(blocks):
        kind = block.get("type")
        if not isinstance(kind, str):
            found = "missing" if "type" not in block else short_repr(kind)
            problem = f"is {found}; a block is sent back only with a string type"
            raise MalformedResponseError(f"content[{index}].type", problem, call=call)
        if kind == "text" and not _text_kept(block, index, call):
            continue
        if kind == "tool_use":
            _check_tool_use(block, index, ids, call)
        kept.append(block)
    return kept


def _text_kept(block: Mapping[str, Any], index: int, call: int | None) -> bool:
    """Whether a text block is kept (an empty one is not); a text that is no str is an error."""
    if not isinstance(block.get("text"), str):
        raise MalformedResponseError(
            f"content[{index}].text", f"is {short_repr(block.get('text'))}, not a str", call=call
        )
    return bool(block["text"])


def _check_tool_use(
    block: Mapping[str, Any], index: int, ids: dict[str, int], call: int | None
) -> None:
    """Refuse a tool_use block without a string id and name and an object input, or a repeat id."""
    for key in ("id", "name"):
        value = block.get(key)
        if not isinstance(value, str) or not value:
            found = "missing" if key not in block else short_repr(value)
            raise MalformedResponseError(
                f"content[{index}].{key}",
                f"is {found}; a tool_use block needs a non-empty string {key}",
                call=call,
            )
    if not isinstance(block.get("input"), Mapping):
        found = "missing" if "input" not in block else short_repr(block["input"])
        raise MalformedResponseError(
            f"content[{index}].input", f"is {found}, not an object", call=call
        )
    if block["id"] in ids:
        raise MalformedResponseError(
            f"content[{index}].id",
            f"repeats {block['id']!r}, the id of content[{ids[block['id']]}]; "
            "the API refuses two tool_use blocks with one id",
            call=call,
        )
    ids[block["id"]] = index


def _transcript_request(model: str, max_tokens: int, messages: Sequence[Message]) -> dict[str, Any]:
    text = f"{COMPACT_INSTRUCTION}\n\n{_transcript(messages)}"
    return {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": text}],
    }


class Compaction(Protocol):
    """A compaction step: how `run_agent` asks for a summary, and what replaces the history.

    `summary_request` gets the request the loop would send next (after the
    plan, a copy) and the loop's own history; it returns the summarizing
    request. `restart` gets the summary's text and returns the whole new
    history, which must open with a user message. A step may also have a
    `due(rounds)` method: `rounds` is the tool rounds since the last restart,
    and a true answer compacts whatever the counter says.
    """

    def summary_request(
        self, request: dict[str, Any], messages: Sequence[Message]
    ) -> dict[str, Any]: ...

    def restart(self, summary: str) -> list[Message]: ...


@dataclass(frozen=True)
class TranscriptCompaction:
    """The wholesale restart: summarize the transcript in a request of its own.

    The summarizing request holds one user message, `COMPACT_INSTRUCTION`
    then the history as text, with no system prompt and no tools, and twice
    the loop's `max_tokens`. The new history is one user message:
    `HANDOFF_PREFIX`, the summary, `NOTES_PREFIX` and the current notes.

    Attributes:
        notes: the notes file read back into the restart message.
    """

    notes: NotesFile

    def __post_init__(self) -> None:
        if not isinstance(self.notes, NotesFile):
            raise TypeError(f"notes must be a NotesFile, got {short_repr(self.notes)}")

    def summary_request(
        self, request: Mapping[str, Any], messages: Sequence[Message]
    ) -> dict[str, Any]:
        """The model, twice the request's `max_tokens`, and instruction + transcript."""
        return _transcript_request(request["model"], 2 * request["max_tokens"], messages)

    def restart(self, summary: str) -> list[Message]:
        """`[{"role": "user", "content": handoff, summary and notes}]`."""
        text = f"{HANDOFF_PREFIX}\n\n{summary}\n\n{NOTES_PREFIX}\n{self.notes.read()}"
        return [{"role": "user", "content": text}]


@dataclass(frozen=True)
class AppendOnlyCompaction:
    """The append-only summary request: the next request, plus a question at its end.

    Everything the loop would send (system, tools, the plan's breakpoints
    and edits) stays as it is, so the request's prefix, and with it the
    cache, is read rather than rebuilt. The question should say in words not
    to call any tool; `tools_off` also sets `tool_choice` to none, which
    turns tools off in the API but, as a change of the request's head,
    invalidates every cached message (and drops the top-level
    `cache_control`: a write no request would read again).

    Attributes:
        question: the user message appended at the end.
        restart_with: summary text -> the new history.
        tools_off: also send `tool_choice: {"type": "none"}`.
    """

    question: str
    restart_with: Callable[[str], list[Message]] = field(repr=False)
    tools_off: bool = False

    def __post_init__(self) -> None:
        _text_argument("question", self.question)
        if not callable(self.restart_with):
            raise TypeError(
                "restart_with must be a function (summary -> messages), "
                f"got {short_repr(self.restart_with)}"
            )
        if not isinstance(self.tools_off, bool):
            raise TypeError(f"tools_off must be True or False, got {short_repr(self.tools_off)}")

    def summary_request(
        self, request: Mapping[str, Any], messages: Sequence[Message]
    ) -> dict[str, Any]:
        """`request` with `question` appended to its messages (and tools off, if asked)."""
        asked = {
            **request,
            "messages": [*request["messages"], {"role": "user", "content": self.question}],
        }
        if self.tools_off:
            asked["tool_choice"] = {"type": "none"}
            asked.pop("cache_control", None)
        return asked

    def restart(self, summary: str) -> list[Message]:
        """What `restart_with` makes of the summary."""
        return self.restart_with(summary)


def compact_history(
    client: ModelClient,
    messages: Sequence[Message],
    notes: NotesFile,
    *,
    model: str = DEFAULT_MODEL,
    max_tokens: int = 2048,
) -> list[Message]:
    """Restart a conversation from a model-written summary and the notes.

    Makes one call that asks the model to summarize `messages` (keeping
    decisions, unresolved bugs and key implementation details, dropping
    redundant tool output), then returns the new history: a single user
    message holding `HANDOFF_PREFIX`, the summary, `NOTES_PREFIX` and the
    current notes. `messages` is not edited.

    Args:
        client: the model client.
        messages: the history to summarize.
        notes: the notes file read back into the restart message.
        model: the model of the summarizing call.
        max_tokens: the summary's output limit, in tokens.

    Returns:
        `[{"role": "user", "content": str}]`, the whole new history.

    Raises:
        TypeError, ValueError: an argument the call could not be made with
            (the error names it), or no messages to summarize; nothing is
            sent.
        MalformedResponseError: the summary is malformed or empty, as in the
            loop's own compaction: a restart from it would drop the history.
    """
    _check_client(client)
    check_messages(messages)
    if not messages:
        raise ValueError("messages holds no message, so nothing to summarize; no call was made")
    if not isinstance(notes, NotesFile):
        raise TypeError(
            f"notes must be a NotesFile, got {type(notes).__name__} {short_repr(notes)}"
        )
    _check_model(model)
    _check_max_tokens(max_tokens)
    response = client.messages.create(**_transcript_request(model, max_tokens, messages))
    return TranscriptCompaction(notes).restart(_summary_text(response, None))


def append_tool_results(
    messages: Sequence[Message], response: Any, tool_impls: Mapping[str, ToolImpl]
) -> list[Message]:
    """The history after one round: the model's turn, then every tool's answer.

    Returns a new list (`messages` is not edited): `messages`, the response's
    content as an assistant message, and one user message holding a
    `tool_result` for each `tool_use` block, in the blocks' order. A tool's
    text is its result (anything else as its `str()`, a lone surrogate as
    its escape), a list of result blocks (text, image, ...) its blocks. A
    tool that raises, returns blocks no result may hold, or a name missing
    from `tool_impls`, gives a result with `is_error: true` whose text says
    what went wrong. Each tool gets a deep copy of its call's input, so a
    tool that changes its input leaves the recorded `tool_use` as the model
    wrote it.

    Args:
        messages: the history so far.
        response: the model's response, a dict or an SDK object.
        tool_impls: tool name -> function of the call's input dict.

    Raises:
        TypeError, ValueError: `messages` is not a list of messages, or
            `tool_impls` not a dict of name -> function (the error names it).
        MalformedResponseError: the response holds no `tool_use` block (the
            answer would be an empty user turn), a `tool_use` lacks its id,
            name or input, or two share an id. Duplicate ids are refused, not
            merged: the API refuses the repeated id in the assistant turn too,
            and dropping one call would rewrite what the model said.

    Examples:
        >>> call = {"type": "tool_use", "id": "t1", "name": "clock", "input": {}}
        >>> after = append_tool_results([], {"content": [call]}, {"clock": lambda _: "9:00"})
        >>> after[-1]["content"]
        [{'type': 'tool_result', 'tool_use_id': 't1', 'content': '9:00'}]
    """
    check_messages(messages)
    _check_tool_impls(tool_impls)
    return [*messages, *_answer(_reply_blocks(response, None), tool_impls, None)]


def _answer(
    blocks: list[dict[str, Any]], tool_impls: Mapping[str, ToolImpl], call: int | None
) -> list[Message]:
    """The two messages `append_tool_results` adds to checked blocks; `call` names the response."""
    uses = [block for block in blocks if block.get("type") == "tool_use"]
    if not uses:
        raise MalformedResponseError(
            "content",
            "holds no tool_use block, so there is nothing to answer (stop_reason 'tool_use' "
            "with no call would send an empty user turn)",
            call=call,
        )
    results = []
    for block in uses:
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block["id"]}
        impl = tool_impls.get(block["name"])
        if impl is None:
            known = ", ".join(sorted(tool_impls)) or "none"
            result["content"] = f"unknown tool {block['name']!r} (tools: {known})"
            result["is_error"] = True
        else:
            try:
                output = impl(copy.deepcopy(dict(block["input"])))
                result["content"] = _result_content(output)
            except Exception as error:  # the model sees the failure and can react
                result["content"] = _sendable(f"{type(error).__name__}: {error}")
                result["is_error"] = True
        results.append(result)
    return [
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": results},
    ]


#: The block types a tool may return, as a list, to be sent as blocks: those a tool
#: result holds, and those it may not (refused by name rather than sent as text).
_BLOCK_TYPES = RESULT_CONTENT | {"tool_use", "tool_result", "thinking", "redacted_thinking"}


def _result_content(output: object) -> str | list[dict[str, Any]]:
    """What a tool returned, as a tool_result's content: a list of content blocks (each
    a dict whose `type` names a block: text, image, document, ...) as those blocks,
    anything else (a list of records among them) as its text.

    Raises:
        TypeError: a list of blocks holds one no tool result may hold.
    """
    if (
        isinstance(output, list)
        and output
        and all(isinstance(b, dict) and b.get("type") in _BLOCK_TYPES for b in output)
    ):
        try:
            check_message({"role": "tool", "content": output})
        except (TypeError, ValueError) as error:
            raise TypeError(f"the tool returned blocks no tool result may hold: {error}") from None
        blocks: list[dict[str, Any]] = copy.deepcopy(output)
        return blocks
    return _sendable(output if isinstance(output, str) else str(output))


def _sendable(text: str) -> str:
    """`text` with each lone surrogate (which UTF-8 cannot encode, so no request could
    carry it) written as its escape, `\\udcff`; any other text as it is."""
    if bad_scalar(text) is None:
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _cleared(response: Any, call: int) -> int:
    """The tool uses the server cleared for a response, from its applied edits.

    Raises:
        MalformedResponseError: `applied_edits` is not a list, or a count in it
            is not a whole number >= 0.
    """
    where = "context_management.applied_edits"
    edits = response_field(response_field(response, "context_management"), "applied_edits")
    if edits is None:
        return 0
    if not isinstance(edits, list | tuple):
        raise MalformedResponseError(where, f"is {short_repr(edits)}, not a list", call=call)
    cleared = 0
    for index, edit in enumerate(edits):
        count = response_field(edit, "cleared_tool_uses")
        if count is None:  # a thinking edit clears turns, not tool uses
            continue
        if type(count) is not int or count < 0:
            field = f"{where}[{index}].cleared_tool_uses"
            raise MalformedResponseError(
                field, f"is {short_repr(count)}, not a whole number >= 0", call=call
            )
        cleared += count
    return cleared


def _measured(measure: Measure, counter: int, response: Any, usage: Usage) -> int:
    """The counter after a turn whose usage, read once, is `usage` (`response` for its kinds)."""
    if measure == "window":
        return window_usage(response, read=usage).window_tokens
    if measure == "prompt":
        return window_usage(response, read=usage).prompt_tokens
    return track_usage(counter, usage)


def _summary_text(response: Any, call: int | None) -> str:
    """The summary a compaction call wrote: its text blocks joined, never empty.

    Raises:
        MalformedResponseError: the content is malformed, or holds no text: a
            restart from an empty summary would drop the whole history unsaid.
    """
    blocks = _reply_blocks(response, call)
    text = "".join(block["text"] for block in blocks if block["type"] == "text")
    if not text.strip():
        raise MalformedResponseError(
            "content",
            "holds no summary text; a restart from it would drop the whole history",
            call=call,
        )
    return text


def _checked_restart(history: object) -> list[Message]:
    """The history a compaction step's `restart` returned, if it can be sent as it is.

    Raises:
        TypeError: it is not a list of messages, or a message is malformed.
        ValueError: it holds no message, does not open with a user message,
            or holds an empty message (the API refuses each).
    """
    if not isinstance(history, list | tuple):
        raise TypeError(
            f"the compaction step's restart must return a list, got {short_repr(history)}"
        )
    if not history:
        raise ValueError(
            "the compaction step's restart returned no message; the next request would carry none"
        )
    check_messages(history)
    if history[0]["role"] != "user":
        raise ValueError(
            f"the restart must open with a user message, got role {history[0]['role']!r}"
        )
    for index, message in enumerate(history):
        content = message["content"]
        if content == [] or (isinstance(content, str) and not content.strip()):
            raise ValueError(f"restart message {index} is empty; the API refuses an empty message")
    return list(history)


def _check_model(model: object) -> None:
    """Refuse a model name that is not a non-blank str."""
    if not isinstance(model, str):
        raise TypeError(f"model must be a str, got {type(model).__name__} {short_repr(model)}")
    if not model.strip():
        raise ValueError(f"model must name a model, got {short_repr(model)}")
    _text_argument("model", model)  # the text a request could carry


def _check_max_tokens(size: object) -> None:
    """Refuse an output limit that is not a positive int (a bool is not one)."""
    if type(size) is not int:
        raise TypeError(f"max_tokens must be an int, got {type(size).__name__} {short_repr(size)}")
    if size < 1:
        raise ValueError(f"max_tokens must be a positive int, got {short_repr(size)}")


def _check_client(client: object) -> None:
    """Refuse a client without `messages.create`."""
    if not callable(getattr(getattr(client, "messages", None), "create", None)):
        raise TypeError(f"client must have messages.create(**request), got {short_repr(client)}")


def _check_tool_impls(impls: object) -> None:
    """Refuse a tool table that is not a dict of name -> function."""
    if not isinstance(impls, Mapping):
        raise TypeError(f"tool_impls must be a dict of name -> function, got {short_repr(impls)}")
    for name, impl in impls.items():
        if not isinstance(name, str) or not callable(impl):
            raise TypeError(
                f"tool_impls[{short_repr(name)}] must map a str to a function, "
                f"got {short_repr(impl)}"
            )


def _text_argument(name: str, value: object, *, optional: bool = False) -> None:
    """Refuse a prompt text the API would refuse: not a str, blank, or not UTF-8."""
    if optional and value is None:
        return
    if not isinstance(value, str):
        kind = "a str or None" if optional else "a str"
        raise TypeError(f"{name} must be {kind}, got {type(value).__name__} {short_repr(value)}")
    if not optional and not value.strip():
        raise ValueError(f"{name} must hold some text, got {short_repr(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(value[error.start])
        raise ValueError(
            f"{name} holds a lone surrogate (U+{code:04X}) at character {error.start}, "
            "which UTF-8 cannot encode"
        ) from None


@dataclass(frozen=True)
class AgentConfig:
    """The settings of one run of the loop, checked when made: all it reads, nothing it changes.

    The one place the loop's settings are declared: `run_agent` takes the
    task and then exactly these, by these names and with these defaults
    (`tools` and `tool_impls` may come by position, the rest by name).
    Making one refuses any setting the loop could not send or use, before
    any call.

    Attributes:
        tools: tool definitions in the API's shape (add `NOTES_TOOL` to let
            the agent keep notes).
        tool_impls: tool name -> function of the call's input dict, returning
            the result's text (anything else goes as its `str()`), or a list
            of the blocks a tool result may hold (text, image, document, ...),
            sent as those blocks (a list of records goes as its text). A lone
            surrogate in the text goes out as its escape (`\\udcff`), since
            UTF-8 cannot encode it. A function that raises, or a name not
            here, gives a `tool_result` with `is_error: true`. Each function
            gets a deep copy of the input, so changing it cannot alter the
            call the history records.
        client: the model client.
        model: the model name sent with every request.
        context_window: the window, in tokens.
        compact_ratio: the share of the window that triggers compaction, in
            (0, 1); None never compacts.
        notes: the notes file the default compaction reads back at each
            restart, and `notes_in_system` reads at every request; None only
            when neither needs it.
        on_compact: called after each compaction.
        measure: `"accumulated"` (the lesson's counter: input + output of
            every call since the reset), `"window"` (what the last request
            carried, cache reads and writes included, plus its output; with
            server tools, the last `message` entry of `usage.iterations`, as
            `window_usage` reads it) or `"prompt"` (the same without the
            output: the last prompt's size).
        system: the system prompt, if any.
        notes_in_system: append the current notes to the system prompt of
            every request (the proposal the chapter measures).
        max_tokens: each loop call's output limit, in tokens (a
            `TranscriptCompaction` call gets twice as many).
        edit_history: a client-side edit applied to the history before each
            request (say, `clear_old_tool_results`). It gets copies (each
            message copied once, and again only after a hook changed its copy
            in place), so even an edit in place leaves the loop's own history
            unedited; the loop sends what it returns.
        strict: refuse a request that edits the history anywhere but its end
            (the rule of 2026): a `PrefixGuard(strict=True)` checks every
            request before it is sent. Appending, server-side editing and the
            wholesale restart after compaction pass it (the restart is
            declared to the guard, so it passes even when the new first
            message equals the old one); a window that drops the oldest
            turns, or a change a caller makes to `AgentLoop.messages`
            between two steps, does not. The check costs time in proportion
            to what each request adds, plus what a hook or a caller changed:
            the loop knows which messages went out before unchanged.
        guard: a `PrefixGuard` of your own to check every request with (its
            `reports` then tell what each request did to the cached prefix);
            with `strict`, it must be a strict one.
        plan: the request plan: a function of each request about to be sent
            (copies of the messages and tools, after `edit_history`) that
            returns the request to send: breakpoints to mark
            (`cache_control`), edits for the server to make
            (`context_management`, with `betas`), a system prompt in blocks.
            The loop's own history never sees what it changes.
        compaction: the compaction step; `TranscriptCompaction(notes)` when
            None. Its summarizing request is not shown to the guard.
        max_calls: the most model calls of the run, compactions included;
            a run that would make one more stops with `"max_calls"`.

    Raises:
        TypeError: a setting has the wrong type; the error names it and its value.
        ValueError: a setting is out of range, or `strict` comes with a
            guard that only reports.
    """

    tools: Sequence[Mapping[str, Any]]
    tool_impls: Mapping[str, ToolImpl]
    _: KW_ONLY
    client: ModelClient
    model: str
    context_window: int
    compact_ratio: float | None
    notes: NotesFile | None = None
    on_compact: Callable[[], None] | None = None
    measure: Measure = "accumulated"
    system: str | None = None
    notes_in_system: bool = False
    max_tokens: int = 1024
    edit_history: Callable[[list[Message]], list[Message]] | None = None
    strict: bool = False
    guard: PrefixGuard | None = None
    plan: RequestPlan | None = None
    compaction: Compaction | None = None
    max_calls: int | None = None

    def __post_init__(self) -> None:
        _text_argument("system", self.system, optional=True)
        self._check_model_and_tools()
        self._check_client_and_notes()
        self._check_limits()
        self._check_hooks()

    @property
    def threshold(self) -> float:
        """`context_window * compact_ratio`, in tokens (infinite when `compact_ratio` is None)."""
        if self.compact_ratio is None:
            return float("inf")
        return self.context_window * self.compact_ratio

    @property
    def hooked(self) -> bool:
        """Whether a hook (`edit_history` or `plan`) sees each request before it is sent."""
        return self.edit_history is not None or self.plan is not None

    def compaction_step(self) -> Compaction | None:
        """`compaction`, or `TranscriptCompaction(notes)` when it is None and there are notes."""
        if self.compaction is None and self.notes is not None:
            return TranscriptCompaction(self.notes)
        return self.compaction

    def _check_model_and_tools(self) -> None:
        _check_model(self.model)
        tools = self.tools
        if not isinstance(tools, Sequence) or isinstance(tools, str | bytes):
            raise TypeError(f"tools must be a list of tool definitions, got {short_repr(tools)}")
        named: dict[str, int] = {}  # tool name -> its first index
        for index, tool in enumerate(tools):
            if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
                raise TypeError(
                    f"tools[{index}] must be a dict with a str 'name', got {short_repr(tool)}"
                )
            first = named.setdefault(tool["name"], index)
            if first != index:  # the API refuses the request: tool names must be unique
                raise ValueError(
                    f"tools[{index}] repeats the name {short_repr(tool['name'])} of "
                    f"tools[{first}]; each tool needs a name of its own"
                )
        _check_tool_impls(self.tool_impls)

    def _check_client_and_notes(self) -> None:
        _check_client(self.client)
        notes = self.notes
        needs_notes = self.notes_in_system is True or (
            self.compaction is None and self.compact_ratio is not None
        )
        if not isinstance(notes, NotesFile) and (needs_notes or notes is not None):
            kind = "a NotesFile" if needs_notes else "a NotesFile or None"
            found = f"{type(notes).__name__} {short_repr(notes)}"
            raise TypeError(f"notes must be {kind}, got {found}{self._why_notes()}")

    def _why_notes(self) -> str:
        """What asks for the notes file, for the error that finds none: "" when nothing does."""
        if self.notes_in_system is True:
            return ": notes_in_system reads it into the system prompt at every request"
        if self.compaction is None and self.compact_ratio is not None:
            return (
                f": compact_ratio {self.compact_ratio} compacts by default, which reads it "
                "back at each restart (give notes=NotesFile(path), or compaction=)"
            )
        return ""

    def _check_limits(self) -> None:
        _check_max_tokens(self.max_tokens)
        ratio = self.compact_ratio
        if ratio is not None and type(ratio) not in (int, float):
            found = f"{type(ratio).__name__} {short_repr(ratio)}"
            raise TypeError(f"compact_ratio must be a number, got {found}")
        should_compact(0, self.context_window, 0.5 if ratio is None else ratio)  # their range
        if self.measure not in ("accumulated", "window", "prompt"):
            raise ValueError(
                f"measure must be 'accumulated', 'window' or 'prompt', got {self.measure!r}"
            )
        limit = self.max_calls
        if limit is not None and (type(limit) is not int or limit < 1):
            raise ValueError(f"max_calls must be a positive int or None, got {short_repr(limit)}")

    def _check_hooks(self) -> None:
        step = self.compaction
        if step is not None and not all(
            callable(getattr(step, name, None)) for name in ("summary_request", "restart")
        ):
            raise TypeError(
                f"compaction must have summary_request and restart methods, got {short_repr(step)}"
            )
        for name in ("on_compact", "edit_history", "plan"):
            hook = getattr(self, name)
            if hook is not None and not callable(hook):
                raise TypeError(f"{name} must be a function or None, got {short_repr(hook)}")
        for name in ("notes_in_system", "strict"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(
                    f"{name} must be True or False, got {short_repr(getattr(self, name))}"
                )
        guard = self.guard
        if guard is not None and not isinstance(guard, PrefixGuard):
            raise TypeError(f"guard must be a PrefixGuard or None, got {short_repr(guard)}")
        if guard is not None and self.strict and not guard.strict:
            raise ValueError("strict=True needs a strict guard: pass PrefixGuard(strict=True)")


class AgentLoop:
    """One run of the loop, as named steps around the page's loop.

    `run` is the loop of *The loop that makes room*: ask, run the tools,
    compact when due, ask again, until the model stops asking. Each thing it
    does is a step of its own: `build_request`, `check_prefix`, `send`,
    `record_usage` (the four that make one call, `ask`), `run_tools`,
    `compaction_due` and `compact`. A caller with a protocol of its own (a
    lead agent that hands work to sub-agents between two calls) can take the
    steps one by one, and `add_text` appends to the conversation between them.

    Args:
        config: the run's settings.
        user_input: the task, the first user message (some non-blank text).

    Attributes:
        config: the run's settings.
        messages: the history the next request carries: the loop's own list,
            grown in place, and replaced whole by a compaction. No hook ever
            sees these objects, only copies of them. A caller may change it
            between two steps, in place or by giving a new list: the loop
            keeps its own copy of what it is given and notes where the change
            was, so the next request carries the change, and the guard sees
            it (in strict mode, a change to a message already sent is refused).
        calls: every model call so far, a `ModelCall` each.
        compactions: the numbers of the compaction calls so far.
        tokens_used: the counter, in tokens, as `config.measure` reads it.
        response: the last response of a call of the loop.
        stop_reason: the last response's stop reason, or `"max_calls"`.
        blocks: the last response's content, checked, until the history holds it.
        guard: the `PrefixGuard` every request is shown to, if any.
    """

    def __init__(self, config: AgentConfig, user_input: str) -> None:
        _text_argument("user_input", user_input)
        self.config = config
        self.messages = [{"role": "user", "content": user_input}]
        self.calls: list[ModelCall] = []
        self.compactions: list[int] = []
        self.tokens_used = 0
        self.response: Any = None
        self.stop_reason: Any = None
        self.blocks: list[dict[str, Any]] = []
        self.guard = config.guard
        if self.guard is None and config.strict:
            self.guard = PrefixGuard(strict=True)
        self._step = config.compaction_step()
        self._copies, self._tool_copies = WatchedCopies(), WatchedCopies()  # what hooks get
        self._checked = (-1, 0)  # the guard's report count after our last check, its length
        # the last request built: its messages, how many leading ones went out before in
        # their places, which of those changed since; and the requests built since a check
        self._vouched: tuple[object, int, list[int]] | None = None
        self._builds = 0
        self._sent = 0  # how many of `messages` the last request carried
        self._pauses = 0  # paused turns resumed in a row
        self._call_ids: set[str] = set()  # every tool_use id since the last restart
        self._rounds = 0  # tool rounds since the last restart
        self._failed: list[int] = []  # the counter after each failed compaction in a row
        self._just_compacted = False

    @property
    def messages(self) -> History:
        """The history the next request carries (see the class's attributes)."""
        return self._history

    @messages.setter
    def messages(self, history: Sequence[Message]) -> None:
        if history is not getattr(self, "_history", None):
            self._history = History(history, readers=("copies", "guard"))

    def run(self) -> AgentRun:
        """The loop: ask, run the tools, compact when due, ask again, until the model stops."""
        self.ask()
        while self.goes_on():
            restart = False
            if self.stop_reason == "pause_turn":
                self.resume()
            else:
                self.run_tools()
                restart = self.compaction_due()  # 1. after the results, before the next request
                if restart:
                    self.compact()  # 2. wholesale replacement and 3. the reset
            if self.spent():
                self.stop_reason = "max_calls"  # compacted with the last call there was
                break
            self.ask(restart=restart)
        return self.result()

    def ask(self, *, restart: bool = False) -> Any:
        """One call of the loop: build the request, check its prefix, send it, record its usage.

        `restart` says the history was just replaced by a compaction (the
        guard is told). Returns the response; `blocks` and `stop_reason` hold
        what it said.
        """
        request = self.build_request()
        self.check_prefix(request, restart=restart)
        response = self.send(request)
        self._sent = len(self.messages)
        self.record_usage("turn", response)
        self.response, self.stop_reason = response, response_field(response, "stop_reason")
        self.blocks = _reply_blocks(response, len(self.calls))
        self._watch_the_restart()
        return response

    def build_request(self) -> dict[str, Any]:
        """The request for the history as it stands: settings, then `edit_history` and `plan`.

        The hooks get copies, each message and tool copied once and again only
        after it changed (a hook changed its copy in place, or a caller the
        loop's message), so nothing a hook does reaches the loop's history or
        the caller's tools.
        """
        config = self.config
        request: dict[str, Any] = {"model": config.model, "max_tokens": config.max_tokens}
        prompt = config.system or ""
        if config.notes_in_system and config.notes is not None:
            prompt = f"{prompt}\n\n{NOTES_PREFIX}\n{config.notes.read()}".lstrip()
        if prompt:
            request["system"] = prompt
        if config.tools:
            tools = config.tools
            request["tools"] = list(self._tool_copies.of(tools)) if config.plan else list(tools)
        self._builds += 1
        if not config.hooked:
            request["messages"] = list.copy(self.messages)  # subtle: list() of a subclass is slower
            self._vouched = (request["messages"], len(request["messages"]), [])
            return request
        request = self._hooked(request)
        sent = request.get("messages")
        kept, changed = self._copies.unchanged(sent)
        self._vouched = (sent, kept, changed)
        return request

    def _hooked(self, request: dict[str, Any]) -> dict[str, Any]:
        """`request` with copies of the history, as `edit_history` and then `plan` make it."""
        config = self.config
        changed = self.messages.changed_since("copies")
        sent = self._copies.of(self.messages, changed_from=changed)
        if config.edit_history is not None:
            edited = config.edit_history(sent)
            if not isinstance(edited, list | tuple):
                raise TypeError(
                    "edit_history must return the messages to send (a list), "
                    f"got {short_repr(edited)}"
                )
            sent = edited if edited is sent or type(edited) is list else list(edited)
        request["messages"] = sent
        if config.plan is None:
            return request
        planned = config.plan(request)
        if not isinstance(planned, Mapping):
            raise TypeError(
                f"plan must return the request to send (a dict), got {short_repr(planned)}"
            )
        if not isinstance(planned.get("messages"), list | tuple):
            raise TypeError(
                "the request plan returned holds no messages (a list of messages), "
                f"got {short_repr(planned.get('messages'))}"
            )
        return dict(planned)

    def check_prefix(self, request: Mapping[str, Any], *, restart: bool = False) -> None:
        """Show the request to the guard, if any, before it is sent (strict mode may refuse it).

        `restart` says the history was just replaced by a compaction. Without
        a hook the loop also knows when it was not, and says so: any other
        change to a message already sent is then an edit, at the start of the
        history too. A hook may start a new conversation of its own, so with
        one the guard tells a restart from an edit itself (a history that
        keeps a later message of the last request, in its place or moved up
        as when a window drops the oldest turns, is an edit).
        The guard compares only what changed since the last request it passed:
        what the loop added, and what a hook or a caller changed (the loop
        knows which messages those are). A hook that returns a new list, not
        the one it was given, has the guard compare the whole of it.
        """
        guard = self.guard
        if guard is None:
            return
        sent = request["messages"]
        changed = self.messages.changed_since("guard")
        vouched, builds, self._vouched, self._builds = self._vouched, self._builds, None, 0
        ours = not restart and builds == 1 and self._checked[0] == len(guard.reports)
        kept, rechecked = 0, []
        if ours and vouched is not None and vouched[0] is sent:
            kept = min(self._checked[1], vouched[1])
            kept = kept if changed is None else min(kept, changed)
            rechecked = vouched[2]
        self._checked = (-1, 0)  # until the guard passes this request
        guard.check(
            sent,
            tools=request.get("tools"),
            system=request.get("system"),
            restart=True if restart else (None if self.config.hooked else False),
            kept=kept,
            changed=rechecked,
        )
        self._checked = (len(guard.reports), len(sent))

    def send(self, request: dict[str, Any]) -> Any:
        """Send the request, through `client.beta.messages` when it carries `betas`."""
        return send_request(self.config.client, request)

    def record_usage(self, kind: Literal["turn", "compaction"], response: Any) -> None:
        """Note the call; a turn's usage also moves the counter (`config.measure`).

        Raises:
            MalformedResponseError: the usage, or the edits the server applied,
                cannot be read.
        """
        number = len(self.calls) + 1
        try:
            usage = Usage.of(response)  # the one read of the call's usage
            if kind == "turn":
                measure = self.config.measure
                self.tokens_used = _measured(measure, self.tokens_used, response, usage)
        except ValueError as error:
            raise MalformedResponseError("usage", f"is unreadable: {error}", call=number) from None
        self.calls.append(
            ModelCall(
                number=number,
                kind=kind,
                stop_reason=response_field(response, "stop_reason"),
                usage=usage,
                tokens_used=self.tokens_used,
                cleared=_cleared(response, number),
            )
        )

    def goes_on(self) -> bool:
        """Whether the last response asks for another call, and the run may make it.

        `"tool_use"` and `"pause_turn"` ask for one; with no call left the
        stop reason becomes `"max_calls"`. A pause with nothing in it, or the
        pause after `MAX_PAUSES` in a row, ends the run.
        """
        if self.stop_reason not in ("tool_use", "pause_turn"):
            return False
        if self.spent():
            self.stop_reason = "max_calls"  # no call left to read tool results or a resumed turn
            return False
        return self.stop_reason == "tool_use" or (bool(self.blocks) and self._pauses < MAX_PAUSES)

    def resume(self) -> None:
        """Send a paused turn back as it is, an assistant message, so the API carries on."""
        for index, block in enumerate(self.blocks):
            if block.get("type") == "tool_use":
                raise MalformedResponseError(
                    f"content[{index}]",
                    "is a tool_use block in a paused turn (stop_reason 'pause_turn'); "
                    "a call to a client tool ends a turn with 'tool_use'",
                    call=len(self.calls),
                )
        self._pauses += 1
        self.messages.append({"role": "assistant", "content": self.blocks})
        self.blocks = []

    def run_tools(self) -> None:
        """Run every tool the last response asked for: its turn, then one message of results."""
        self._pauses = 0
        for index, block in enumerate(self.blocks):
            if block.get("type") == "tool_use" and block["id"] in self._call_ids:
                raise MalformedResponseError(
                    f"content[{index}].id",
                    f"repeats {block['id']!r}, the id of an earlier call in this history; "
                    "the API refuses a reused tool_use id",
                    call=len(self.calls),
                )
        self.messages.extend(_answer(self.blocks, self.config.tool_impls, len(self.calls)))
        self._call_ids.update(b["id"] for b in self.blocks if b.get("type") == "tool_use")
        self._rounds += 1
        self.blocks = []

    def add_text(self, text: str) -> None:
        """Append `text` to the conversation, at the end of its last message, not yet sent.

        The last message must be a user message the loop added since the last
        request (the tool results `run_tools` just appended, say): appending
        to it leaves every message already sent as it was.

        Raises:
            ValueError: `text` is blank, or the last message was already sent
                or is not a user message.
        """
        _text_argument("text", text)
        last = self.messages[-1]
        if len(self.messages) <= self._sent or last["role"] != "user":
            raise ValueError("add_text appends to a user message not sent yet; run_tools first")
        content = last["content"]
        old = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        added = {**last, "content": [*old, {"type": "text", "text": text}]}
        self.messages[-1] = added

    def compaction_due(self) -> bool:
        """The check: the counter at or over the threshold, or a step that counts rounds says so."""
        config, step = self.config, self._step
        if step is None:
            return False
        due = config.compact_ratio is not None and should_compact(
            self.tokens_used, config.context_window, config.compact_ratio
        )
        step_due = getattr(step, "due", None)  # a step may count rounds instead
        return due or (step_due is not None and bool(step_due(self._rounds)))

    def compact(self) -> None:
        """Ask for a summary, then replace the whole history with the step's restart.

        The summarizing request is not shown to the guard. The counter goes
        back to 0: it counts the new window, not the run.

        Raises:
            MalformedResponseError: the summary is malformed or empty.
            TypeError, ValueError: the summary request is no dict, or the
                restart is not a history that can be sent.
        """
        step = self._step
        assert step is not None, "compact() needs a compaction step"
        asked = step.summary_request(self.build_request(), self.messages)
        if not isinstance(asked, Mapping):
            raise TypeError(
                "the compaction step's summary_request must return the request to send "
                f"(a dict), got {short_repr(asked)}"
            )
        summary = self.send(dict(asked))
        self.tokens_used = 0  # 3. the reset
        self.record_usage("compaction", summary)
        restart = step.restart(_summary_text(summary, len(self.calls)))
        self.messages = _checked_restart(restart)  # 2. wholesale replacement
        self._sent = 0
        self.compactions.append(len(self.calls))
        self._just_compacted, self._call_ids, self._rounds = True, set(), 0
        if self.config.on_compact is not None:
            self.config.on_compact()

    def spent(self) -> bool:
        """Whether the run has made all of its `max_calls` calls."""
        limit = self.config.max_calls
        return limit is not None and len(self.calls) >= limit

    def result(self) -> AgentRun:
        """The run so far, as `run_agent` returns it: a reply not yet sent back is kept, if any."""
        if self.blocks:
            self.messages.append({"role": "assistant", "content": self.blocks})
            self.blocks = []
        return AgentRun(
            text="" if self.stop_reason == "max_calls" else response_text(self.response),
            stop_reason=self.stop_reason,
            calls=tuple(self.calls),
            compactions=tuple(self.compactions),
            messages=tuple(self.messages),
            threshold=self.config.threshold,
            measure=self.config.measure,
        )

    def _watch_the_restart(self) -> None:
        """After a compaction: a counter still at the threshold is a miss; three in a row stop."""
        if not self._just_compacted:
            return
        self._just_compacted = False
        if self.tokens_used < self.config.threshold:
            self._failed = []
            return
        self._failed.append(self.tokens_used)
        if len(self._failed) >= MAX_FAILED_COMPACTIONS:
            raise CompactionStormError(threshold=self.config.threshold, sizes=self._failed)


def _takes_the_settings_of(
    config: Callable[_Settings, AgentConfig],
) -> Callable[[Callable[..., AgentRun]], Callable[Concatenate[str, _Settings], AgentRun]]:
    """Give a function of (the task, the settings) the settings' own signature.

    The settings stay declared once, in `AgentConfig`: a type checker reads
    the decorated function as taking the task and then exactly
    `AgentConfig`'s arguments, and `inspect.signature` (so `help`) shows them.
    """

    def typed(run: Callable[..., AgentRun]) -> Callable[Concatenate[str, _Settings], AgentRun]:
        task = inspect.Parameter("user_input", inspect.Parameter.POSITIONAL_ONLY, annotation="str")
        fields = inspect.signature(config).parameters.values()
        signature = inspect.Signature([task, *fields], return_annotation="AgentRun")
        run.__signature__ = signature  # type: ignore[attr-defined]
        return run

    return typed


@_takes_the_settings_of(AgentConfig)
def run_agent(user_input: str, /, *settings: Any, **named: Any) -> AgentRun:
    """Run the loop until the model stops asking for tools, compacting on the way.

    After each round's tool results are appended, the counter is compared with
    `context_window * compact_ratio`; at or above it, the compaction step
    replaces the whole history and the counter restarts from 0.

    Stop reasons: `"tool_use"` runs the tools and calls again. `"pause_turn"`
    (a server tool's long turn, paused by the API) is resumed as the Anthropic
    SDK's tool runner resumes it: the paused content goes back as it is, as
    an assistant message, and the loop calls again (see
    [handling stop reasons](https://docs.anthropic.com/en/api/handling-stop-reasons)).
    At most `MAX_PAUSES` pauses in a row are resumed; the next one, or a pause
    with empty content, ends the run with `"pause_turn"`. Any other reason
    ends the run. An empty assistant turn is never sent or kept.

    Args:
        user_input: the task, the first user message (some non-blank text).
        *settings: the first of the run's settings, the fields of
            `AgentConfig` (see there for each): `tools` and `tool_impls`,
            by position if you like.
        **named: the other settings, by name: `client`, `model`,
            `context_window`, `compact_ratio` and the optional ones.

    Returns:
        The run: reply, stop reason, calls, compactions and final history.

    Raises:
        TypeError: an argument has the wrong type; the error names it and its
            value (`notes` must be a `NotesFile`, not a path). Also a hook
            that returns no history (`edit_history`) or no request with
            messages (`plan`): the request is not sent.
        ValueError: an argument is out of range (`context_window`,
            `compact_ratio`, `measure`, `max_tokens`, `max_calls`, a blank
            `model` or `user_input`, a lone surrogate in `model`,
            `user_input` or `system`, two tools of one name), or `strict`
            with a guard that only reports. Nothing is sent. Also a
            compaction step's restart that holds no message, opens with no
            user message or holds an empty one: it is not sent.
        MalformedResponseError: a response the loop cannot answer or send
            back: `"tool_use"` with no tool_use block, `"pause_turn"` with
            one, a block without a string type, a tool_use without id, name
            or input, a tool id used twice (in one response or in the
            history), unreadable usage, or a compaction call whose summary
            is malformed or empty. The error names the field and the call.
        CompactionStormError: three compactions in a row each left the next
            call's counter at or above the threshold.
        MiddleEditError: in strict mode, a request edited the history in the
            middle (the error's `report` says where and what it cost).
    """
    return AgentLoop(AgentConfig(*settings, **named), user_input).run()
