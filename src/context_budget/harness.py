"""The harness loop, with a counter that triggers compaction and notes that survive it.

`run_agent` is the stop-reason loop: call the model, run the tools it asks
for, send the results back, until it stops asking. Three lines make it manage
its own context, and each sits in one exact place:

1. **The check** comes after this round's tool results are appended and
   before the next request, so it sees the results just produced and never
   sends an over-threshold history one extra time.
2. **Wholesale replacement**: on compaction `messages` becomes the single
   restart message `compact_history` returns; nothing of the old list is kept.
3. **The reset**: the counter goes back to 0, because it counts the new
   window, not the whole run.

The client is anything with `messages.create(**request)`: `ScriptedClient`
offline, or `anthropic.Anthropic()` unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from context_budget.clients import ModelClient, content_blocks, response_field
from context_budget.errors import CompactionStormError
from context_budget.history import PrefixGuard
from context_budget.messages import Message, message_text
from context_budget.notes import NotesFile
from context_budget.usage import Usage, should_compact, track_usage

__all__ = [
    "COMPACT_INSTRUCTION",
    "DEFAULT_MODEL",
    "HANDOFF_PREFIX",
    "NOTES_PREFIX",
    "AgentRun",
    "ModelCall",
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

Measure = Literal["accumulated", "window"]
ToolImpl = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class ModelCall:
    """One model call of a run.

    Attributes:
        number: the call's place in the run, counting from 1.
        kind: `"turn"` for a call of the loop, `"compaction"` for a
            summarizing call.
        stop_reason: the response's stop reason.
        usage: the tokens the call reported.
        tokens_used: the counter after this call, in tokens (0 after a
            compaction call: the reset).
    """

    number: int
    kind: Literal["turn", "compaction"]
    stop_reason: str | None
    usage: Usage
    tokens_used: int


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
        measure: the counter's measure, `"accumulated"` or `"window"`.
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
            stop = call.stop_reason or "?"
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
    return "\n\n".join(f"[{m['role']}] {message_text(m)}" for m in messages)


def _text(response: Any) -> str:
    return "".join(b.get("text", "") for b in content_blocks(response) if b.get("type") == "text")


def _compact(
    client: ModelClient, messages: Sequence[Message], notes: NotesFile, model: str, max_tokens: int
) -> tuple[list[Message], Any]:
    """The restart messages and the summarizing call's response."""
    response = client.messages.create(
        model=model,
        max_tokens=max_tokens,
        messages=[{"role": "user", "content": f"{COMPACT_INSTRUCTION}\n\n{_transcript(messages)}"}],
    )
    restart = f"{HANDOFF_PREFIX}\n\n{_text(response)}\n\n{NOTES_PREFIX}\n{notes.read()}"
    return [{"role": "user", "content": restart}], response


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
    """
    restart, _ = _compact(client, messages, notes, model, max_tokens)
    return restart


def append_tool_results(
    messages: Sequence[Message], response: Any, tool_impls: Mapping[str, ToolImpl]
) -> list[Message]:
    """The history after one round: the model's turn, then every tool's answer.

    Returns a new list (`messages` is not edited): `messages`, the response's
    content as an assistant message, and one user message holding a
    `tool_result` for each `tool_use` block, in the blocks' order. A tool that
    raises, or a name missing from `tool_impls`, gives a result with
    `is_error: true` whose text says what went wrong.

    Args:
        messages: the history so far.
        response: the model's response, a dict or an SDK object.
        tool_impls: tool name -> function of the call's input dict.

    Examples:
        >>> call = {"type": "tool_use", "id": "t1", "name": "clock", "input": {}}
        >>> after = append_tool_results([], {"content": [call]}, {"clock": lambda _: "9:00"})
        >>> after[-1]["content"]
        [{'type': 'tool_result', 'tool_use_id': 't1', 'content': '9:00'}]
    """
    blocks = content_blocks(response)
    results = []
    for block in blocks:
        if block.get("type") != "tool_use":
            continue
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block["id"]}
        impl = tool_impls.get(block["name"])
        if impl is None:
            known = ", ".join(sorted(tool_impls)) or "none"
            result["content"] = f"unknown tool {block['name']!r} (tools: {known})"
            result["is_error"] = True
        else:
            try:
                output = impl(block.get("input", {}))
                result["content"] = output if isinstance(output, str) else str(output)
            except Exception as error:  # the model sees the failure and can react
                result["content"] = f"{type(error).__name__}: {error}"
                result["is_error"] = True
        results.append(result)
    return [
        *messages,
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": results},
    ]


def _measured(measure: Measure, counter: int, response: Any) -> int:
    if measure == "window":
        return Usage.of(response).window_tokens
    return track_usage(counter, response)


def run_agent(
    user_input: str,
    tools: Sequence[Mapping[str, Any]],
    tool_impls: Mapping[str, ToolImpl],
    *,
    client: ModelClient,
    model: str,
    context_window: int,
    compact_ratio: float,
    notes: NotesFile,
    on_compact: Callable[[], None] | None = None,
    measure: Measure = "accumulated",
    system: str | None = None,
    notes_in_system: bool = False,
    max_tokens: int = 1024,
    edit_history: Callable[[list[Message]], list[Message]] | None = None,
    strict: bool = False,
    guard: PrefixGuard | None = None,
) -> AgentRun:
    """Run the loop until the model stops asking for tools, compacting on the way.

    After each round's tool results are appended, the counter is compared with
    `context_window * compact_ratio`; at or above it, `compact_history`
    replaces the whole history and the counter restarts from 0.

    Args:
        user_input: the task, the first user message.
        tools: tool definitions in the API's shape (add `NOTES_TOOL` to let
            the agent keep notes).
        tool_impls: tool name -> function of the call's input dict, returning
            the result's text. A function that raises, or a name not here,
            gives a `tool_result` with `is_error: true`.
        client: the model client.
        model: the model name sent with every request.
        context_window: the window, in tokens.
        compact_ratio: the share of the window that triggers compaction, in (0, 1).
        notes: the notes file read back at each restart.
        on_compact: called after each compaction.
        measure: `"accumulated"` (the lesson's counter: input + output of
            every call since the reset) or `"window"` (what the last request
            carried, cache reads and writes included, plus its output).
        system: the system prompt, if any.
        notes_in_system: append the current notes to the system prompt of
            every request (the proposal the chapter measures).
        max_tokens: each loop call's output limit, in tokens (a summarizing
            call gets twice as many).
        edit_history: a client-side edit applied to the history before each
            request (say, `clear_old_tool_results`); the loop keeps its own
            history unedited and sends the edited copy.
        strict: refuse a request that edits the history anywhere but its end
            (the rule of 2026): a `PrefixGuard(strict=True)` checks every
            request before it is sent. Appending, server-side editing and the
            wholesale restart after compaction pass it.
        guard: a `PrefixGuard` of your own to check every request with (its
            `reports` then tell what each request did to the cached prefix);
            with `strict`, it must be a strict one.

    Returns:
        The run: reply, stop reason, calls, compactions and final history.

    Raises:
        ValueError: `context_window`, `compact_ratio` or `measure` is out of range.
        CompactionStormError: three compactions in a row each left the next
            call's counter at or above the threshold.
        MiddleEditError: in strict mode, a request edited the history in the
            middle (the error's `report` says where and what it cost).
    """
    should_compact(0, context_window, compact_ratio)  # validates both
    if measure not in ("accumulated", "window"):
        raise ValueError(f"measure must be 'accumulated' or 'window', got {measure!r}")
    if guard is None and strict:
        guard = PrefixGuard(strict=True)
    elif guard is not None and strict and not guard.strict:
        raise ValueError("strict=True needs a strict guard: pass PrefixGuard(strict=True)")
    threshold = context_window * compact_ratio
    calls: list[ModelCall] = []
    compactions: list[int] = []

    def ask(history: list[Message]) -> Any:
        request: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
        prompt = system or ""
        if notes_in_system:
            prompt = f"{prompt}\n\n{NOTES_PREFIX}\n{notes.read()}".lstrip()
        if prompt:
            request["system"] = prompt
        if tools:
            request["tools"] = list(tools)
        sent = history if edit_history is None else list(edit_history(history))
        if guard is not None:
            guard.check_request({**request, "messages": sent})
        return client.messages.create(**request, messages=sent)

    def record(kind: Literal["turn", "compaction"], response: Any, counter: int) -> None:
        usage = Usage.of(response)
        stop = response_field(response, "stop_reason")
        calls.append(ModelCall(len(calls) + 1, kind, stop, usage, counter))

    messages: list[Message] = [{"role": "user", "content": user_input}]
    response = ask(messages)
    tokens_used = _measured(measure, 0, response)
    record("turn", response, tokens_used)
    failed: list[int] = []  # counter after each failed compaction in a row
    just_compacted = False

    while response_field(response, "stop_reason") == "tool_use":
        messages = append_tool_results(messages, response, tool_impls)
        # 1. the check: after this round's results, before the next request
        if should_compact(tokens_used, context_window, compact_ratio):
            messages, summary = _compact(client, messages, notes, model, 2 * max_tokens)
            # 2. wholesale replacement (above) and 3. the reset
            tokens_used = 0
            record("compaction", summary, tokens_used)
            compactions.append(len(calls))
            just_compacted = True
            if on_compact is not None:
                on_compact()
        response = ask(messages)
        tokens_used = _measured(measure, tokens_used, response)
        record("turn", response, tokens_used)
        if just_compacted:
            just_compacted = False
            if should_compact(tokens_used, context_window, compact_ratio):
                failed.append(tokens_used)
                if len(failed) >= MAX_FAILED_COMPACTIONS:
                    raise CompactionStormError(threshold=threshold, sizes=failed)
            else:
                failed = []

    blocks = content_blocks(response)
    messages = [*messages, {"role": "assistant", "content": blocks}]
    stop = response_field(response, "stop_reason")
    return AgentRun(
        text=_text(response),
        stop_reason=stop,
        calls=tuple(calls),
        compactions=tuple(compactions),
        messages=tuple(messages),
        threshold=threshold,
        measure=measure,
    )
