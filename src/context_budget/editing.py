"""Server-side context editing, emulated: what the API does to a prompt before the model reads it.

The client sends its whole history; the server edits a copy and reports what
it did. This module applies the documented edits the same way, offline:

- `clear_tool_uses_20250919`: once the prompt *before* editing exceeds the
  trigger, the oldest tool results are replaced by `placeholder`, all but the
  last `keep` tool uses; `exclude_tools` are never cleared; `clear_tool_inputs`
  (true, or a list of tool names) also empties the calls' inputs (to `{}`, our
  choice); if the edit cannot win back `clear_at_least` tokens it is not applied
  at all (a veto). Which results can be cleared at all (not errors, not already
  cleared) comes from `messages._tool_results`, as for client-side clearing.
- `clear_thinking_20251015`: thinking blocks of all but the last `keep`
  assistant turns are dropped (`keep` defaults to the model's own preservation:
  the last turn on `LAST_TURN_THINKING_ONLY` models, every turn on the others);
  it must come first when edits are combined.
- `compact_20260112`: once the prompt reaches the trigger (at least 50,000
  tokens), the history is summarized into a `compaction` block that opens the
  reply; a later request drops every block before its last compaction block.

`clear_tool_uses_langchain` applies the same input under LangChain's
`ClearToolUsesEdit` rules, which stop once `clear_at_least` is reached instead
of vetoing, for comparison.

The emulated server that applies these edits before a model reads the prompt,
`EmulatedClient`, lives with the other fakes (`context_budget.fakes.emulated`).
The placeholder wording is not documented by the provider; `PLACEHOLDER` is
ours and a parameter everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from context_budget._blocks import request_block_text, result_text, tool_results
from context_budget._checks import check_messages
from context_budget._clearing import is_cleared
from context_budget._counting import count_text, resolve_counter
from context_budget._values import as_count, short_repr
from context_budget.cache import PromptCache
from context_budget.errors import ContextManagementError
from context_budget.messages import Message
from context_budget.models import model_for
from context_budget.tokens import TokenCounter

__all__ = [
    "COMPACTION_MIN_TRIGGER",
    "PLACEHOLDER",
    "ClearResult",
    "clear_tool_uses_20250919",
    "clear_tool_uses_langchain",
]

#: The text a cleared tool result holds (our wording; the provider's is not published).
PLACEHOLDER = "[tool result cleared by context management]"
#: The lowest `compact_20260112` trigger the API accepts, in input tokens.
COMPACTION_MIN_TRIGGER = 50_000

_CLEAR_DEFAULT_TRIGGER = 100_000
#: Each edit type -> the keys an edit of it may hold; the API refuses any other.
_EDIT_KEYS: dict[str, tuple[str, ...]] = {
    "clear_thinking_20251015": ("type", "keep"),
    "clear_tool_uses_20250919": (
        "type",
        "trigger",
        "keep",
        "clear_at_least",
        "exclude_tools",
        "clear_tool_inputs",
    ),
    "compact_20260112": ("type", "trigger", "pause_after_compaction", "instructions"),
}
_COMPACT_DEFAULT_TRIGGER = 150_000
_EDIT_TYPES = ("clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112")


@dataclass(frozen=True)
class ClearResult:
    """The outcome of one clearing edit.

    Attributes:
        messages: the edited copy (the input itself when nothing was cleared).
        cleared_tool_uses: tool uses whose result was cleared.
        cleared_input_tokens: tokens won back, placeholders and emptied inputs
            deducted.
    """

    messages: list[Message]
    cleared_tool_uses: int
    cleared_input_tokens: int

    def applied_edit(self) -> dict[str, Any] | None:
        """The `applied_edits` entry, or None when the edit was not applied."""
        if not self.cleared_tool_uses:
            return None
        return {
            "type": "clear_tool_uses_20250919",
            "cleared_tool_uses": self.cleared_tool_uses,
            "cleared_input_tokens": self.cleared_input_tokens,
        }


@dataclass(frozen=True)
class _Use:
    name: str
    call: tuple[int, int]  # (message, block) of the tool_use
    result: tuple[int, int] | None  # (message, block) of its tool_result


def _uses(messages: Sequence[Message]) -> list[_Use]:
    """Every tool use, oldest first, with the place of its result."""
    results: dict[str, tuple[int, int]] = {}
    for index, message in enumerate(messages):
        if isinstance(message["content"], list):
            for number, block in enumerate(message["content"]):
                if block["type"] == "tool_result":
                    results.setdefault(block["tool_use_id"], (index, number))
    uses = []
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and isinstance(message["content"], list):
            for number, block in enumerate(message["content"]):
                if block["type"] == "tool_use":
                    uses.append(_Use(block["name"], (index, number), results.get(block["id"])))
    return uses


def _clearable(messages: Sequence[Message], placeholder: str) -> set[tuple[int, int]]:
    """(message, block) of each result the server may clear: not an error, not cleared yet.

    Read from `messages._tool_results`, the one place that finds tool results.
    Unlike client-side clearing, the server clears a result even when its
    placeholder is no smaller: it does not weigh each result.
    """
    found = set()
    for result in tool_results(messages):
        if result.block is None or result.is_error:
            continue
        text = result_text(result.content)
        if text != placeholder and not is_cleared(text):
            found.add((result.message, result.block))
    return found


def _value(spec: object, kind: str, default: int, name: str, *, least: int = 0) -> int:
    """The `value` of a `{"type": kind, "value": N}` parameter, N an int >= `least`."""
    if spec is None:
        return default
    if not isinstance(spec, Mapping) or spec.get("type") != kind:
        raise ContextManagementError(
            f"{name} must be {{'type': '{kind}', 'value': N}}, got {short_repr(spec)}"
        )
    value = spec.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ContextManagementError(
            f"{name}.value must be an int >= {least}, got {short_repr(value)}"
        )
    return value


def _names(value: object, name: str) -> list[str]:
    """A list of tool names, or a `ContextManagementError` naming the parameter."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ContextManagementError(
            f"{name} must be a list of tool names, got {short_repr(value)}"
        )
    return value


def _checked_placeholder(placeholder: object) -> str:
    """`placeholder`, if it is a str; a TypeError naming it otherwise."""
    if not isinstance(placeholder, str):
        raise TypeError(f"placeholder must be a str, got {short_repr(placeholder)}")
    return placeholder


def _prompt_tokens(messages: Sequence[Message], counter: TokenCounter) -> int:
    return PromptCache("any", counter=counter, min_tokens=0).prompt_tokens(messages=messages)


def _input_tokens(use_block: Mapping[str, Any], counter: TokenCounter) -> int:
    return count_text(request_block_text(use_block), counter)


def _apply(
    messages: Sequence[Message],
    chosen: Sequence[_Use],
    inputs_of: Callable[[str], bool],
    placeholder: str,
) -> list[Message]:
    """A copy of `messages` with the chosen results (and inputs) cleared."""
    out = list(messages)
    edits: dict[int, dict[int, dict[str, Any]]] = {}  # message -> block -> new block
    for use in chosen:
        if use.result is not None:
            index, number = use.result
            block = messages[index]["content"][number]
            edits.setdefault(index, {})[number] = {**block, "content": placeholder}
        if inputs_of(use.name):
            index, number = use.call
            edits.setdefault(index, {})[number] = {
                **messages[index]["content"][number],
                "input": {},
            }
    for index, blocks in edits.items():
        content = list(messages[index]["content"])
        for number, block in blocks.items():
            content[number] = block
        out[index] = {**messages[index], "content": content}
    return out


def clear_tool_uses_20250919(
    messages: Sequence[Message],
    edit: Mapping[str, Any] | None = None,
    *,
    prompt_tokens: int | None = None,
    counter: TokenCounter | None = None,
    placeholder: str = PLACEHOLDER,
    checked: bool = False,
) -> ClearResult:
    """Apply one `clear_tool_uses_20250919` edit as the server does.

    Args:
        messages: the history in Anthropic's block format, oldest first
            (`tool_use` blocks in assistant messages, `tool_result` blocks after).
        edit: the edit's parameters as the API takes them (`trigger`, `keep`,
            `clear_at_least`, `exclude_tools`, `clear_tool_inputs`); defaults
            apply for each one missing (trigger 100,000 input tokens, keep 3).
        prompt_tokens: the size of the whole prompt before editing (tools and
            system included), in tokens; the messages' own size when None.
        counter: text -> tokens; `estimate_tokens` when None.
        placeholder: the text a cleared result gets.
        checked: True when the caller built or checked the messages itself (a
            replay's requests, each call's): they are not checked again.

    Returns:
        A `ClearResult`; `cleared_tool_uses == 0` and the input list unchanged
        when the trigger is not exceeded, nothing is clearable, or the veto of
        `clear_at_least` applies. There is a veto only when `clear_at_least`
        is given: without it every result older than `keep` is cleared, even
        when the placeholders outweigh what they replace (then
        `cleared_input_tokens` is negative: the prompt grew by that much).

    Raises:
        TypeError: `edit` is not a dict, or `prompt_tokens` not an int.
        ValueError: `prompt_tokens` is below 0.
        ContextManagementError: a parameter has the wrong shape.

    Examples:
        >>> calls = []
        >>> for i in range(4):
        ...     use = {"type": "tool_use", "id": f"t{i}", "name": "read", "input": {}}
        ...     result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "x" * 400}
        ...     calls += [{"role": "assistant", "content": [use]},
        ...               {"role": "user", "content": [result]}]
        >>> edit = {"trigger": {"type": "input_tokens", "value": 300},
        ...         "keep": {"type": "tool_uses", "value": 1}}
        >>> clear_tool_uses_20250919(calls, edit).applied_edit()
        {'type': 'clear_tool_uses_20250919', 'cleared_tool_uses': 3, 'cleared_input_tokens': 267}
    """
    if not checked:
        check_messages(messages)
    count = resolve_counter(counter)
    edit = {} if edit is None else edit
    if not isinstance(edit, Mapping):
        raise TypeError(f"edit must be a dict of the edit's parameters, got {short_repr(edit)}")
    if prompt_tokens is not None:
        as_count(prompt_tokens, "prompt_tokens")
    _checked_placeholder(placeholder)
    parsed = _clear_edit(edit)
    uses = _uses(messages)
    unchanged = ClearResult(list(messages), 0, 0)
    if not _fired(parsed.trigger, uses, messages, prompt_tokens, count):
        return unchanged
    inputs = parsed.inputs

    def inputs_of(name: str) -> bool:
        return inputs is True or (isinstance(inputs, list) and name in inputs)

    clearable = _clearable(messages, placeholder)
    old = uses[: max(0, len(uses) - parsed.keep)]
    chosen = [u for u in old if u.name not in parsed.excluded and u.result in clearable]
    saved = _saved(messages, chosen, inputs_of, placeholder, count)
    if not chosen or (parsed.at_least is not None and saved < parsed.at_least):
        return unchanged  # subtle: the veto keeps the prompt, and so the cache, intact
    return ClearResult(_apply(messages, chosen, inputs_of, placeholder), len(chosen), saved)


@dataclass(frozen=True)
class _ClearEdit:
    """A `clear_tool_uses_20250919` edit's parameters, read and checked.

    Attributes:
        trigger: the trigger as given (checked when it is read, `_fired`).
        keep: the tool uses kept, newest first.
        at_least: the tokens a clearing must free, or None when no veto applies.
        excluded: the tools whose results are never cleared.
        inputs: True, False, or the tools whose inputs are cleared too.
    """

    trigger: object
    keep: int
    at_least: int | None
    excluded: frozenset[str]
    inputs: bool | list[str]


def _known_keys(edit: Mapping[str, Any], kind: str) -> None:
    """Refuse a key an edit of type `kind` cannot hold (a typo would leave a default, unsaid)."""
    for key in edit:
        if key not in _EDIT_KEYS[kind]:
            raise ContextManagementError(
                f"{kind}: unknown parameter {short_repr(key)}; "
                f"expected {', '.join(_EDIT_KEYS[kind])}"
            )


def _clear_edit(edit: Mapping[str, Any]) -> _ClearEdit:
    """The parameters of one edit (`_ClearEdit`), each missing one at its default.

    Raises:
        ContextManagementError: a parameter has the wrong shape, the edit names
            another type, or it holds a key the API does not know (a misspelt
            `kep` would otherwise leave the default keep in force, unsaid).
    """
    _known_keys(edit, "clear_tool_uses_20250919")
    kind = edit.get("type", "clear_tool_uses_20250919")
    if kind != "clear_tool_uses_20250919":
        raise ContextManagementError(
            f"type must be 'clear_tool_uses_20250919' (or left out), got {short_repr(kind)}"
        )
    trigger = edit.get("trigger")  # None: the default, read where the trigger is (`_fired`)
    keep = _value(edit.get("keep"), "tool_uses", 3, "keep")
    vetoes = edit.get("clear_at_least") is not None
    at_least = _value(edit.get("clear_at_least"), "input_tokens", 0, "clear_at_least")
    exclude = edit.get("exclude_tools")
    excluded = frozenset(_names([] if exclude is None else exclude, "exclude_tools"))
    inputs = edit.get("clear_tool_inputs", False)
    if not isinstance(inputs, bool | list):
        raise ContextManagementError(
            f"clear_tool_inputs must be a bool or a list, got {short_repr(inputs)}"
        )
    if isinstance(inputs, list):
        _names(inputs, "clear_tool_inputs")
    return _ClearEdit(trigger, keep, at_least if vetoes else None, excluded, inputs)


def _fired(
    trigger: object,
    uses: Sequence[_Use],
    messages: Sequence[Message],
    prompt_tokens: int | None,
    count: Callable[[str], int],
) -> bool:
    """True when the edit's trigger is passed: more tool uses than its value, or a prompt
    of more input tokens (the messages' own size when `prompt_tokens` is None)."""
    if isinstance(trigger, Mapping) and trigger.get("type") == "tool_uses":
        return len(uses) > _value(trigger, "tool_uses", 0, "trigger")
    size = _prompt_tokens(messages, count) if prompt_tokens is None else prompt_tokens
    return size > _value(trigger, "input_tokens", _CLEAR_DEFAULT_TRIGGER, "trigger")


def _saved(
    messages: Sequence[Message],
    chosen: Sequence[_Use],
    inputs_of: Callable[[str], bool],
    placeholder: str,
    count: Callable[[str], int],
) -> int:
    """The tokens clearing the `chosen` uses frees: each result's text less the
    placeholder's, and where its tool's inputs are cleared, its input's."""
    saved = 0
    for use in chosen:
        assert use.result is not None  # only results clearing.py found are chosen
        block = messages[use.result[0]]["content"][use.result[1]]
        saved += count_text(result_text(block.get("content")), count) - count_text(
            placeholder, count
        )
        if inputs_of(use.name):
            call = messages[use.call[0]]["content"][use.call[1]]
            saved += _input_tokens(call, count) - _input_tokens({**call, "input": {}}, count)
    return saved


def clear_tool_uses_langchain(
    messages: Sequence[Message],
    *,
    trigger: int = 100_000,
    clear_at_least: int = 0,
    keep: int = 3,
    clear_tool_inputs: bool = False,
    exclude_tools: Sequence[str] = (),
    placeholder: str = "[cleared]",
    prompt_tokens: int | None = None,
    counter: TokenCounter | None = None,
) -> ClearResult:
    """The same clearing under LangChain's `ClearToolUsesEdit` rules (langchain 1.5.2).

    It fires when the prompt exceeds `trigger`, keeps the last `keep` tool
    results in their own order (excluded tools' results and orphan ones count
    toward `keep`), clears the older ones oldest first, each only where the
    nearest assistant message before it made its call, and stops as soon as
    `clear_at_least` tokens are won back (0 means clear them all): a partial
    clear below the target is kept rather than vetoed.

    Returns:
        A `ClearResult` in the same terms as `clear_tool_uses_20250919`.

    Raises:
        TypeError, ValueError: `trigger`, `clear_at_least`, `keep` or
            `prompt_tokens` is not an int >= 0, `clear_tool_inputs` not a
            bool, `exclude_tools` not a list of tool names (a lone name is
            not one) or `placeholder` not a str (the error names it).
    """
    for name, value in (("trigger", trigger), ("clear_at_least", clear_at_least), ("keep", keep)):
        as_count(value, name)
    if prompt_tokens is not None:
        as_count(prompt_tokens, "prompt_tokens")
    if not isinstance(clear_tool_inputs, bool):
        raise TypeError(
            f"clear_tool_inputs must be True or False, got {short_repr(clear_tool_inputs)}"
        )
    if not isinstance(exclude_tools, list | tuple | set | frozenset) or not all(
        isinstance(name, str) for name in exclude_tools
    ):
        raise TypeError(
            f"exclude_tools must be a list of tool names, got {short_repr(exclude_tools)}"
        )
    _checked_placeholder(placeholder)
    check_messages(messages)
    count = resolve_counter(counter)
    size = _prompt_tokens(messages, count) if prompt_tokens is None else prompt_tokens
    if size <= trigger:
        return ClearResult(list(messages), 0, 0)
    chosen: list[_Use] = []
    saved = 0
    for use in _langchain_old(messages, keep):
        assert use.result is not None
        block = messages[use.result[0]]["content"][use.result[1]]
        text = result_text(block.get("content"))
        if use.name in exclude_tools or text == placeholder:
            continue
        chosen.append(use)
        saved += count_text(text, count) - count_text(placeholder, count)
        if clear_tool_inputs:
            call = messages[use.call[0]]["content"][use.call[1]]
            saved += _input_tokens(call, count) - _input_tokens({**call, "input": {}}, count)
        if clear_at_least and saved >= clear_at_least:
            break
    if not chosen:
        return ClearResult(list(messages), 0, 0)
    cleared = _apply(messages, chosen, lambda name: clear_tool_inputs, placeholder)
    return ClearResult(cleared, len(chosen), saved)


def _langchain_old(messages: Sequence[Message], keep: int) -> list[_Use]:
    """The results LangChain may clear, oldest first, each with its call.

    LangChain keeps the last `keep` tool results in their own order, whatever
    they answer (an orphan result counts toward `keep`); of the others, it
    passes over a result whose call is not in the nearest assistant message
    before it (and a shorthand `"tool"` message, which names no call).
    """
    results = list(tool_results(messages))
    nearest: list[int] = []  # message index -> the nearest assistant message before it
    last = -1
    for index, message in enumerate(messages):
        nearest.append(last)
        if message["role"] == "assistant":
            last = index
    old = []
    for result in results[: max(0, len(results) - keep)]:
        caller = nearest[result.message]
        if result.block is None or caller < 0 or not isinstance(messages[caller]["content"], list):
            continue
        wanted = messages[result.message]["content"][result.block]["tool_use_id"]
        for number, block in enumerate(messages[caller]["content"]):
            if block["type"] == "tool_use" and block["id"] == wanted:
                old.append(_Use(block["name"], (caller, number), (result.message, result.block)))
                break
    return old


def _clear_thinking(
    messages: Sequence[Message], edit: Mapping[str, Any], count: TokenCounter, model: str
) -> tuple[list[Message], dict[str, Any] | None]:
    # the default `keep` is the model's own preservation: the last turn on the
    # models that keep only that one, all turns on the others (context-editing docs)
    row = model_for(model)
    last_turn = row is not None and row.thinking == "last-turn"
    default = {"type": "thinking_turns", "value": 1} if last_turn else "all"
    keep_spec = edit.get("keep")
    keep_spec = default if keep_spec is None else keep_spec  # None is a keep left out
    if keep_spec == "all" or (isinstance(keep_spec, Mapping) and keep_spec.get("type") == "all"):
        return list(messages), None
    keep = _value(keep_spec, "thinking_turns", 1, "keep", least=1)  # the docs: N must be > 0
    turns = []  # indexes of the assistant turns that hold thinking
    for index, message in enumerate(messages):
        content = message["content"]
        thinks = isinstance(content, list) and any(
            b["type"] in ("thinking", "redacted_thinking") for b in content
        )
        if message["role"] == "assistant" and thinks:
            turns.append(index)
    drop = turns[: max(0, len(turns) - keep)]
    if not drop:
        return list(messages), None
    out, saved = list(messages), 0
    for index in drop:
        content = messages[index]["content"]
        kept = [b for b in content if b["type"] not in ("thinking", "redacted_thinking")]
        saved += sum(count_text(request_block_text(b), count) for b in content if b not in kept)
        out[index] = {**messages[index], "content": kept}
    entry = {
        "type": "clear_thinking_20251015",
        "cleared_thinking_turns": len(drop),
        "cleared_input_tokens": saved,
    }
    return out, entry


def _after_compaction(messages: Sequence[Message]) -> list[Message]:
    """The messages the API reads: every block before the last compaction block dropped."""
    for index in range(len(messages) - 1, -1, -1):
        content = messages[index]["content"]
        if isinstance(content, list):
            for number in range(len(content) - 1, -1, -1):
                if content[number]["type"] == "compaction":
                    first = {**messages[index], "content": content[number:]}
                    return [first, *messages[index + 1 :]]
    return list(messages)


def _default_summary(messages: Sequence[Message], instructions: str | None) -> str:
    """A deterministic stand-in for the model's summary: counts and the last user text."""
    last = next(
        (
            m["content"]
            for m in reversed(messages)
            if m["role"] == "user" and isinstance(m["content"], str)
        ),
        "",
    )
    head = f"Summary of {len(messages)} messages"
    if instructions:
        head += f" ({instructions})"
    return f"{head}. Latest request: {last[:200]}"


def _check_edits(management: object) -> list[Mapping[str, Any]]:
    if not isinstance(management, Mapping) or not isinstance(management.get("edits"), list):
        raise ContextManagementError(
            f"context_management must be {{'edits': [...]}}, got {short_repr(management)}"
        )
    edits = management["edits"]
    for number, edit in enumerate(edits):
        kind = edit.get("type") if isinstance(edit, Mapping) else None
        if kind not in _EDIT_TYPES:
            raise ContextManagementError(
                f"context_management.edits.{number}: unknown edit type {short_repr(kind)}; "
                f"expected one of {', '.join(_EDIT_TYPES)}"
            )
        assert isinstance(edit, Mapping) and isinstance(kind, str)
        _known_keys(edit, kind)
        if kind == "clear_thinking_20251015" and number != 0:
            raise ContextManagementError(
                f"context_management.edits.{number}: clear_thinking_20251015 must be the first "
                "edit in the list when edits are combined"
            )
        if kind == "compact_20260112":
            value = _value(edit.get("trigger"), "input_tokens", _COMPACT_DEFAULT_TRIGGER, "trigger")
            if value < COMPACTION_MIN_TRIGGER:
                raise ContextManagementError(
                    f"context_management.edits.{number}.trigger.value: must be at least "
                    f"{COMPACTION_MIN_TRIGGER:,} input tokens, got {value:,}"
                )
            instructions = edit.get("instructions")
            if instructions is not None and not isinstance(instructions, str):
                raise ContextManagementError(
                    f"context_management.edits.{number}.instructions: must be a str, "
                    f"got {short_repr(instructions)}"
                )
            pause = edit.get("pause_after_compaction", False)
            if not isinstance(pause, bool):
                raise ContextManagementError(
                    f"context_management.edits.{number}.pause_after_compaction: must be a "
                    f"bool, got {short_repr(pause)}"
                )
    return list(edits)
